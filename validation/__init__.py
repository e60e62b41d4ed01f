"""Networks written by others, for validating the diagnosis: `package.module:factory` strings that
`python -m runtime_core diagnose --model validation.external:NAME` takes (see external.py)."""
