# Tests of the TraceDat reader(s); see Tests/ReaderTests.cmake for the conventions.
