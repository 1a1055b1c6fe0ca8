"""What XLA makes of the program: runs and profiles, StableHLO/HLO, comparisons, fusion, memory, sharding."""
