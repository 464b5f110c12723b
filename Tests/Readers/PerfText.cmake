# Tests of the PerfText reader(s); see Tests/ReaderTests.cmake for the conventions.
