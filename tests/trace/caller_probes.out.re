BEGIN: 1
([A-Za-z_][A-Za-z0-9_.]*)   kernel`\1 *\|
profile: 1 1

