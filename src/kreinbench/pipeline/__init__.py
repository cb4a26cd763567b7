"""The workflow's Python side: planning from the config, the paper-target registry, job resources,
the run claim, the environment record, and the stages the rules call."""
