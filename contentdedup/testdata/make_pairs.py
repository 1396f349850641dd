# Regenerates pairs.jsonl (the near-duplicate / distinct fixtures) from page
# texts extracted with goquery from the lab corpora (python311 tutorial,
# maintguide zh-cn, faq zh-cn) into /tmp/cdx/NAME.txt. Kept as the record of
# how each pair was made; the tests read pairs.jsonl only.
import json, random
R = random.Random(42)
ZHPOOL = '的一是在不了有和人这中大为上个国我以要他时来用们生到作地于出就分对成会可主发年动同工也能下过子说产种面而方后多定行学法所民得经十三之进着等部度家电力里如水化高自二理起小物现实加量都两体'
def rd(n, limit=7000):
    s = open('/tmp/cdx/%s.txt' % n).read()
    if len(s) > limit:
        s = s[:limit]
        s = s[:s.rfind('\n')]
    return s
def edit_words(s, frac, zh=False):
    if zh:
        cs = list(s)
        idx = [i for i,c in enumerate(cs) if '\u4e00' <= c <= '\u9fff']
        for i in R.sample(idx, int(len(idx)*frac)):
            cs[i] = R.choice(ZHPOOL)
        return ''.join(cs)
    ws = s.split(' ')
    for i in R.sample(range(len(ws)), int(len(ws)*frac)):
        ws[i] = R.choice(['alpha','bravo','charlie','delta','echo','foxtrot','golf','hotel'])
    return ' '.join(ws)
def move_par(s):
    ps = s.split('\n')
    i = R.randrange(len(ps)//3); j = R.randrange(2*len(ps)//3, len(ps))
    p = ps.pop(i); ps.insert(j, p)
    return '\n'.join(ps)
pairs = []
def add(name, lang, want, a, b):
    pairs.append(dict(name=name, lang=lang, want=want, a=a, b=b))
def d(url, title, text): return dict(url=url, title=title, text=text)
t = rd('controlflow.en')
add('en header and footer changed', 'en', 'duplicate', d('https://docs.python.org/3/tutorial/controlflow.html','4. More Control Flow Tools',t),
    d('https://mirror.example.org/py/controlflow','4. More Control Flow Tools — Python mirror', 'Python Mirror Home | Downloads | Community\n'+t+'\nThis page is mirrored by example.org. Copyright 2026 Example Mirror Inc. All rights reserved.'))
t = rd('classes.en')
add('en 2% of words edited', 'en', 'duplicate', d('https://docs.python.org/3/tutorial/classes.html','9. Classes',t),
    d('https://copy.example.net/classes.html','9. Classes',edit_words(t,0.02)))
t = rd('appetite.en')
lines = t.split('\n'); mid = len(lines)//2
add('en date line and ad block inserted', 'en', 'duplicate', d('https://docs.python.org/3/tutorial/appetite.html','1. Whetting Your Appetite',t),
    d('https://blog.example.com/2026/11/appetite','Whetting Your Appetite','Posted on November 20, 2026 by admin\n'+'\n'.join(lines[:mid]+['Advertisement: Fast cloud hosting for your Python apps. Sign up today and get three months free!']+lines[mid:])))
t = rd('errors.en')
add('en paragraph moved and end truncated', 'en', 'duplicate', d('https://docs.python.org/3/tutorial/errors.html','8. Errors and Exceptions',t),
    d('https://docs.python.org/3/tutorial/errors.html?print=1','8. Errors and Exceptions',move_par(t)[:int(len(t)*0.96)]))
add('en same title, different pages', 'en', 'distinct', d('https://a.example/intro','Introduction',rd('introduction.en')), d('https://b.example/intro','Introduction',rd('appetite.en')))
add('en different pages of one site', 'en', 'distinct', d('https://docs.python.org/3/tutorial/errors.html','8. Errors and Exceptions',rd('errors.en')), d('https://docs.python.org/3/tutorial/modules.html','6. Modules',rd('modules.en')))
add('en short texts one word apart', 'en', 'distinct', d('https://a.example/1','Chapter 1','Chapter 1: getting started with the installer.'), d('https://a.example/2','Chapter 2','Chapter 2: getting started with the configuration.'))
add('en short texts equal but for case and punctuation', 'en', 'duplicate', d('https://a.example/x','Contact','Contact us: write to the team, we answer within two days.'), d('https://b.example/x','CONTACT','contact us — write to the team; we answer within two days'))
t = rd('first.zh', 6000)
add('zh header and footer changed', 'zh', 'duplicate', d('https://www.debian.org/doc/maint-guide/first.zh-cn.html','第 2 章 第一步',t),
    d('https://mirror.example.cn/maint-guide/first.html','第 2 章 第一步 - 镜像站','首页 | 下载 | 社区 | 联系我们\n'+t+'\n本页面由示例镜像站转载，版权所有 © 2026 示例公司。'))
t = rd('choosing.zh', 6000)
add('zh 2% of characters edited', 'zh', 'duplicate', d('https://www.debian.org/doc/FAQ/ch-choosing.zh-cn.html','第 3 章 选择一个 Debian 发行版',t),
    d('https://copy.example.cn/faq/choosing','第 3 章 选择一个 Debian 发行版',edit_words(t,0.02,zh=True)))
t = rd('dother.zh', 6000)
add('zh paragraph moved, date line inserted', 'zh', 'duplicate', d('https://www.debian.org/doc/maint-guide/dother.zh-cn.html','第 5 章 debian 目录下的其他文件',t),
    d('https://news.example.cn/2026/11/20/dother','debian 目录下的其他文件','发布时间：2026年11月20日 10:32 来源：示例网\n'+move_par(t)))
add('zh same title, different pages', 'zh', 'distinct', d('https://a.example.cn/','首页',rd('start.zh',6000)), d('https://b.example.cn/','首页',rd('checkit.zh',6000)))
add('zh different chapters', 'zh', 'distinct', d('https://www.debian.org/doc/maint-guide/first.zh-cn.html','第 2 章 第一步',rd('first.zh',6000)), d('https://www.debian.org/doc/maint-guide/dother.zh-cn.html','第 5 章 debian 目录下的其他文件',rd('dother.zh',6000)))
m = 'ＡＰＴ 是 Debian 的软件包管理工具，使用 apt-get install 命令安装软件包，使用 apt-get remove 命令删除软件包，使用 apt-cache search 命令搜索软件包。更新软件源列表请运行 apt-get update 命令，升级系统请运行 apt-get upgrade 命令。'
add('zh mixed Chinese and English, full-width forms', 'zh', 'duplicate', d('https://a.example.cn/m','ＡＰＴ 工具', m), d('https://b.example.cn/m','APT 工具', m.replace('ＡＰＴ','APT').replace('，',',')))
with open('pairs.jsonl','w') as f:
    for p in pairs: f.write(json.dumps(p, ensure_ascii=False)+'\n')
print(len(pairs))
