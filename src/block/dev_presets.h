/* Device presets for --set dev.model=NAME (docs/storage-model.md, Presets).
 * A preset gives values to the dev.* keys the user did not set. */
#ifndef WBLAB_DEV_PRESETS_H
#define WBLAB_DEV_PRESETS_H

enum dev_kind { DEV_FIFO, DEV_HDD, DEV_SSD, DEV_LOOP };

struct dev_preset_kv { const char *key; double value; };

struct dev_preset {
	const char *name;
	enum dev_kind kind;
	const char *what;
	struct dev_preset_kv kv[12];   /* ends at key == NULL */
};

/* NULL if unknown */
const struct dev_preset *dev_preset_find(const char *name);
/* Whether a device of this kind reads the dev.* key (dev.model aside): the
 * block layer's own keys hold for every kind but fifo, which has none. */
int dev_kind_uses(enum dev_kind kind, const char *key);
extern const char *const dev_model_names[];   /* NULL-terminated, for the params table */
extern const char *const dev_elevator_names[];

#endif
