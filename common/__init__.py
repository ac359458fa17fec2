"""Plumbing shared by analysis/, tools/ and run_sweep.py: the one exsim runner (exsim_runner),
the one atomic file writer (atomic) and the one place for the look of tables (tables: text,
Markdown, CSV and JSON). It knows nothing of sweeps, reports or workloads; everything else
imports it, and it imports nothing of the repository.
"""
