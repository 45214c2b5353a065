#include <sqlite3.h>
#include <spatialite.h>
#include <spatialite/gaiageo.h>
