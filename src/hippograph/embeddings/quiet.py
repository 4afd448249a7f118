"""Loading or exporting a model without writing to the terminal: transformers' progress bars
are switched off and its log held at ERROR for the duration, and the warnings raised meanwhile
(torch's tracer warnings when exporting to ONNX) go to this module's logger at DEBUG."""

from __future__ import annotations

import importlib
import logging
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from types import ModuleType

logger = logging.getLogger(__name__)


@contextmanager
def quiet_model_loading() -> Iterator[None]:
    """Within the block, third-party progress bars are off and warnings are logged, not shown.

    Warnings are caught process-wide while the block runs (``warnings.catch_warnings`` has no
    narrower scope before Python 3.14), so keep the block to the model load or export itself.
    """
    hf_logging: ModuleType | None
    try:
        hf_logging = importlib.import_module("transformers.utils.logging")
    except ImportError:  # the load itself then fails, naming the extra to install
        hf_logging = None
    if hf_logging is not None:
        bar_was_on = hf_logging.is_progress_bar_enabled()
        verbosity = hf_logging.get_verbosity()
        hf_logging.disable_progress_bar()
        hf_logging.set_verbosity_error()
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                yield
            finally:
                for w in caught:
                    logger.debug(
                        "%s", warnings.formatwarning(w.message, w.category, w.filename, w.lineno, w.line).strip()
                    )
    finally:
        if hf_logging is not None:
            hf_logging.set_verbosity(verbosity)
            if bar_was_on:
                hf_logging.enable_progress_bar()
