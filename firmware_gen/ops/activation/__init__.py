"""The activations: tables of one input byte (int8), their int16 forms, PRELU."""
