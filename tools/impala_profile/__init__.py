"""Impala query profiles for exsim: decoding (decode, text) into one tree (tree), the normalised model
of a profiled query (model), scenario import (to_scenario) and measured-vs-simulated comparison (compare).

Run through the exsim command line: `exsim profile import`, `exsim compare`, `exsim diff`.
"""
