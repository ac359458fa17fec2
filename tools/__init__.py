"""Tooling that writes the project's data (scenarios/): the TPC-DS workload and its calibration."""
