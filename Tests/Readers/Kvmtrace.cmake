# Tests of the Kvmtrace reader(s); see Tests/ReaderTests.cmake for the conventions.
