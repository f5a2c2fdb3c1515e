/* Policy plug-ins (docs/policies.md): a shared object implementing
 * include/wblab/policy.h, loaded with `wblab sim --policy FILE`, run as the
 * model "policy-NAME" inside the 3.2 loop (bdp_32.c) with its hooks, and held
 * to its contract. */
#ifndef WBLAB_POLICY_LOADER_H
#define WBLAB_POLICY_LOADER_H
#include <stddef.h>
#include "throttle.h"

/* Loads FILE (once per process).  The model, or NULL with a one-line reason
 * in err ("policy FILE: VIOLATION: ..."). */
const struct throttle_model *policy_load(const char *file, char *err, size_t errlen);
/* The loaded plug-in's model, or NULL. */
const struct throttle_model *policy_model(void);

#endif
