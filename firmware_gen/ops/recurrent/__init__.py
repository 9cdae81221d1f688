"""UNIDIRECTIONAL_SEQUENCE_LSTM and SVDF, with their state."""
