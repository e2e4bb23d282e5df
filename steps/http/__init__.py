"""The suite's HTTP layer: every request goes through `HttpLayer` (steps/http/layer.py), which
paces it, waits out throttling (throttle.py) and records it as evidence, masked (evidence.py);
answers are read by readers.py, pages by the one HTML parser (html.py). The lowest layer of
the suite: it knows nothing of scenarios."""
