"""firmware-gen: ahead-of-time compiler from quantized TFLite models to C firmware for Cortex-M."""

__version__ = "0.1.0"
