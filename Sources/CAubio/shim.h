#include <aubio/aubio.h>
