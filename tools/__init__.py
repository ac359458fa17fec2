"""Python tooling of exsim (run with /usr/bin/python3): the TPC-DS workload and its calibration,
and the Impala profile importer. A package, so that `python3 -m tools.impala_profile` and
`python3 -m tools.tpcds.workload` find this directory first."""
