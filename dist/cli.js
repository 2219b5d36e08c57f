#!/usr/bin/env node
import './cli/index.js'
