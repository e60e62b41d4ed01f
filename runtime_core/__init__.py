"""runtime_core: the engine of the lesson app. Imports torch, never streamlit.

Start at `device.get_device()`, `measure.measure()` and `model.predict()`.
"""
