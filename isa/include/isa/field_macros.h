// Maps the field macros of opcodes.def onto one macro, NSIM_FIELD(kind, name, spaces, access, optional),
// which each expansion of the table defines for itself. Include before expanding the table and
// include field_macros_end.h after it.
#define READ(name, spaces) NSIM_FIELD(AccessPattern, name, spaces, Read, false)
#define WRITE(name, spaces) NSIM_FIELD(AccessPattern, name, spaces, Write, false)
#define READ_OPT(name, spaces) NSIM_FIELD(AccessPattern, name, spaces, Read, true)
#define WRITE_OPT(name, spaces) NSIM_FIELD(AccessPattern, name, spaces, Write, true)
#define F32(name) NSIM_FIELD(F32, name, 0, None, false)
#define I32(name) NSIM_FIELD(I32, name, 0, None, false)
#define U32(name) NSIM_FIELD(U32, name, 0, None, false)
#define ACTIVATION(name) NSIM_FIELD(Activation, name, 0, None, false)
#define ALU(name) NSIM_FIELD(Alu, name, 0, None, false)
#define REDUCE(name) NSIM_FIELD(Reduce, name, 0, None, false)
#define ACCUMULATE(name) NSIM_FIELD(Accumulate, name, 0, None, false)
#define SEMAPHORE(name) NSIM_FIELD(Semaphore, name, 0, None, false)
#define NO_FIELDS
