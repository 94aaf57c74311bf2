#!/usr/bin/env node
'use strict';
// The `mcpdesc` command of the package: the command line of the native engine, run in this
// process, so that `npx mcpdesc` is the same program as the standalone binary.
//
// Node leaves SIGINT at its default disposition (Ctrl-C ends the process) and ignores
// SIGPIPE, as the binary does; the command takes a closed pipe for the end of the wanted
// output.

const { runCli } = require('../index.js');

process.exit(runCli(process.argv.slice(2)));
