// Intentionally empty: CLinux is a header-only shim (static inline functions in include/CLinux.h).
#include "CLinux.h"
