#!/usr/bin/env python3
"""yaml_crosscheck.py - PyYAML's reading of YAML documents, for the YAML reader's tests.

Reads {"documents": [text, ...]} on standard input and prints {"results": [json or null, ...]}: for each
text, json.dumps(yaml.safe_load(text)) (members in document order), or null when PyYAML refuses it.
Needs PyYAML (scripts/setup.sh test installs it).
"""
import json
import sys

import yaml

documents = json.load(sys.stdin)["documents"]
results = []
for text in documents:
    try:
        results.append(json.dumps(yaml.safe_load(text)))
    except yaml.YAMLError:
        results.append(None)
json.dump({"results": results}, sys.stdout)
