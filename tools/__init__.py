"""Python tooling of exsim (run with /usr/bin/python3): workload generators and the Impala profile
importer. A package so that `python3 -m tools.impala_profile` finds this directory first."""
