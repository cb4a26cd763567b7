"""Solvers shared by the papers' estimators: SMO and projections for SVM duals, duality gaps, the logistic loss and its Newton step."""
