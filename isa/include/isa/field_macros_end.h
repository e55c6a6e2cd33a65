// Undoes field_macros.h so the short names do not leak.
#undef READ
#undef WRITE
#undef READ_OPT
#undef WRITE_OPT
#undef F32
#undef I32
#undef U32
#undef ACTIVATION
#undef ALU
#undef REDUCE
#undef ACCUMULATE
#undef SEMAPHORE
#undef NO_FIELDS
