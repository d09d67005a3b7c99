"""The knorri-sim command line, the experiment runner and benchmarks."""
