"""Benchmark adapters: for each benchmark a loader, an answerer and a scorer."""
