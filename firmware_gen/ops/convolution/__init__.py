"""CONV_2D, DEPTHWISE_CONV_2D and TRANSPOSE_CONV (int8 and 16x8), and the weight layouts of their
fast kernels (blocked, paired, expanded, fused output stage)."""
