"""Pipeline stages: one function per Snakemake rule, called by the thin scripts in workflow/scripts."""
