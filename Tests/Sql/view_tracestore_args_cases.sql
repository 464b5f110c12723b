-- tracestore_args() and tracestore_arg() on texts with the shapes the
-- kernel prints, and odd ones.  Expected rows derived by hand from the
-- rules in Sqlite3Ext/tracestore_args.c.
.nullvalue NULL
SELECT '1', key, quote(int_value), quote(string_value), value_type, display_value
FROM tracestore_args('comm=CPU 0/KVM pid=2000 prio=120 target_cpu=001');
SELECT '2', key, quote(int_value), quote(string_value), value_type, display_value
FROM tracestore_args('set reason=0, inhibits=0x1 DISABLED');
SELECT '3', key, quote(int_value), quote(string_value), value_type, display_value
FROM tracestore_args('dfd: 0xffffff9c, filename: 0x7ffd, flags: 0x80000, mode: 0');
SELECT '4', key, quote(int_value), quote(string_value), value_type, display_value
FROM tracestore_args('gfp_flags=(GFP_KERNEL | __GFP_ZERO) name="a b \"c\"" buf=[01 02] obj={x=1 y=2} q=''x y''');
SELECT '5', key, quote(int_value), quote(string_value), value_type, display_value
FROM tracestore_args('prev_comm=swapper/0 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=bash next_pid=11548 next_prio=120');
SELECT '6', key, quote(int_value), quote(string_value), value_type, display_value
FROM tracestore_args('a=-5 b=18446744073709551615 c=18446744073709551616 d=0xFFFFFFFFFFFFFFFF e=0x1ffffffffffffffff f=-9223372036854775808 g=-9223372036854775809 h=0x i=1.5 j=- k=');
SELECT '7', count(*) FROM tracestore_args('pio_write at 0x3f8 size 1 count 1 val 0x61');
SELECT '7', count(*) FROM tracestore_args('NR 0 (3, 7ffe, 340)');
SELECT '8', count(*) FROM tracestore_args(NULL);
SELECT '9', count(*) FROM tracestore_args('');
SELECT '10', key, quote(int_value), quote(string_value), value_type, display_value
FROM tracestore_args('a=(x b=2 c="y d=4 e=[1 2');
SELECT '11', key, quote(int_value), quote(string_value), value_type, display_value
FROM tracestore_args('args[0]=5 x.y=1 my-key=2 9bad=3 _u=4 =5 k:v a:');
SELECT '12', key, quote(int_value), quote(string_value), value_type, display_value
FROM tracestore_args('fd: x=1');
SELECT '13', key, quote(int_value), quote(string_value), value_type, display_value
FROM tracestore_args('s="a,b", t=1');
SELECT '14', key, quote(int_value), quote(string_value), value_type, display_value
FROM tracestore_args('a=1' || char(9) || 'b=x' || char(10) || 'c=3');
SELECT '15', tracestore_arg('comm=CPU 0/KVM pid=7', 'comm'),
       tracestore_arg('comm=CPU 0/KVM pid=7', 'pid'),
       quote(tracestore_arg('a=1', 'b')), quote(tracestore_arg(NULL, 'a')),
       tracestore_arg('a=1 a=2', 'a'), tracestore_arg('s="q r"', 's'),
       typeof(tracestore_arg('x=0x10', 'x')), tracestore_arg('x=0x10', 'x');
SELECT '16', key, hex(display_value)
FROM tracestore_args(CAST(X'613D3100623D32' AS TEXT));
SELECT '17', key, display_value FROM tracestore_args('comm=café pid=1');
SELECT '18', count(*) FROM tracestore_args;
SELECT '19', count(*) FROM (SELECT 'a=1 b=2' AS t UNION ALL SELECT 'c=3') AS x,
       tracestore_args(x.t);
