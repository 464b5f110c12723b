# Tests of the Uftrace reader(s); see Tests/ReaderTests.cmake for the conventions.
