/* Integer types of every width and signedness. */
char c;
unsigned char uc;
short s;
unsigned short us;
int i;
unsigned u;
unsigned int ui;
long l;
unsigned long ul;
long long ll;
unsigned long long ull;
signed char sc;
int8_t i8;
uint8_t u8;
int16_t i16;
uint16_t u16;
int32_t i32;
uint32_t u32;
int64_t i64;
uint64_t u64;
uintptr_t up;
size_t sz;
const int ci;

BEGIN
{
	c = 'a';
	u8 = 300;
	i64 = u8 + c;
	trace(i64);
}
