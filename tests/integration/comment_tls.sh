#!/usr/bin/env bash
# Placeholder: written in the change that adds this scenario.
exit 125
