// libpq, PostgreSQL's own C client (Debian's libpq-dev): synchronous, like SQLite's API,
// so the PostgreSQL backend sits behind the same blocking storage seams as SpatiaLite.
#include <libpq-fe.h>
