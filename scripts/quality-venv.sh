#!/usr/bin/env bash
# The `quality` environment of scripts/python-venv.sh (which says what it holds); prints its python.
exec bash "$(dirname "$0")/python-venv.sh" quality
