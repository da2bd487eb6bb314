"""Screening submitted media before scoring: verifier-only copies, leaks, gaming flags."""
