"""SOFTMAX, LOG_SOFTMAX and L2_NORMALIZATION: normalizations over the last dimension."""
