/* Idea (b): the setpoint shifted toward the background threshold.
 *
 * 3.2 steers the dirty count to midway between the freerun ceiling
 * ((thresh + bg_thresh) / 2) and the hard limit.  Moving that point a quarter
 * of the way down toward bg_thresh keeps fewer pages dirty (less memory held,
 * shorter sync), at the price of a smaller buffer in front of the disk.  The
 * position ratio and the rate-limit estimate both steer to the new point (the
 * library uses the setpoint hook for both). */
#include <wblab/policy.h>

static uint64_t bg_setpoint(const struct wblab_api *wb, struct wblab_sim *s, const struct wblab_dtc *dtc)
{
	uint64_t sp = wb->setpoint_32(s, dtc);
	return sp > dtc->bg_thresh ? sp - (sp - dtc->bg_thresh) / 4 : sp;
}

static const struct wblab_policy policy = {
	WBLAB_POLICY_HEADER("bg_setpoint", "3.2 with the setpoint 1/4 of the way down to bg_thresh"),
	.setpoint = bg_setpoint,
};
WBLAB_POLICY(policy)
