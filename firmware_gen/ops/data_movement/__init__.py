"""Operators that move bytes without arithmetic: views, copies, gathers, padding, resizing."""
