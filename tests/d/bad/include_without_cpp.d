#include <sys/types.h>
#define X 1

BEGIN
{
}
