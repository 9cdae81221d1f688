"""Synthetic TFLite models: a flatbuffer writer (`writer`), MobileNetV1 (`mobilenet`) and small graphs (`zoo`)."""
