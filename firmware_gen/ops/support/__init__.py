"""What the operator families share: operand and tensor checks, TFLite's fixed-point arithmetic at
generation time, row-major layouts, broadcasting, the int8 output stage."""
