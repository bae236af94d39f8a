"""Plugins for every test package: the real stores' fixtures and the guard against leaks."""

pytest_plugins = ["tests.stores", "tests.leak_guard"]
