#ifndef OUTPOST_FUZZ_CLIBFUZZER_H
#define OUTPOST_FUZZ_CLIBFUZZER_H

#include <stddef.h>
#include <stdint.h>

/// libFuzzer's driver (compiler-rt's FuzzerDriver.cpp), linked by -sanitize=fuzzer. A target's
/// own `main` calls it: SwiftPM renames a Swift executable's entry point and points `main` at
/// it, so libFuzzer's `main` is never linked.
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

#endif
