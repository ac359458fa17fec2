"""Python tooling of exsim (run with /usr/bin/python3): the TPC-DS workload and its calibration,
and the Impala profile importer. A package, so that its scripts import `tools.tpcds` and exsim
runs `python3 -m tools.impala_profile`."""
