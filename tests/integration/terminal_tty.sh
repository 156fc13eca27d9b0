#!/usr/bin/env bash
exit 125
