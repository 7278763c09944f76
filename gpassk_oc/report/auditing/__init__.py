"""Audit sheets: the verdicts a sheet samples, stratified draws, sheets by answer class, reading filled-in sheets back."""
