/* values.h - TEMPORARY: replaced by the value layer of the parser library. */
#ifndef UMKIT_VALUES_TMP_H
#define UMKIT_VALUES_TMP_H
#include <stddef.h>
int	values_check(const char *spec, char *err, size_t errsize);
int	values_read(const char *root, const char *spec, double *v, char *err,
	    size_t errsize);
#endif
