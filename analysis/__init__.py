"""Python tooling around exsim: sweeps, reports and regression checks.

It reads the simulator's results JSON only, never the simulator's insides, so
the C++ side can change freely as long as the results format holds.
"""
