"""Configuration: every environment variable the service reads, in one typed object
(lingix_config/config.py). A plain package at the bottom of the layers: anything may import it."""

from lingix_config.config import ConfigurationError, LingixConfig, config, reload_config

__all__ = ["ConfigurationError", "LingixConfig", "config", "reload_config"]
