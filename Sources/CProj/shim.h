// PROJ (Debian's libproj-dev, which libspatialite-dev depends on): its database says what a
// spatial reference is (geographic or projected, its units), the same definitions
// SpatiaLite's and PostGIS's ST_Transform read.
#include <proj.h>
