\[kernel`[A-Za-z_][A-Za-z0-9_]*(\+0x[0-9a-f]+)?\] \[0\] \[0x0\]
  (?=.{50}\|$)kernel`[A-Za-z_][A-Za-z0-9_]* *\|
  (?=.{50}\|$)kernel`[A-Za-z_][A-Za-z0-9_]* *\|
kernel`[A-Za-z_][A-Za-z0-9_]* 1

