"""Tables, figures, statistics, collapse and agreement with the papers, reproduction records."""
