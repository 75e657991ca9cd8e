"""Decoding on the model inference contract: greedy, beam search and sampling in one loop.

``decode`` (`loop.py`) runs every strategy, a step function named in one table
(`strategies.py`); ``DecodingOptions`` holds the options as one value and ``DecodingModel``
states what a model must provide (docs/architecture.md).
"""
