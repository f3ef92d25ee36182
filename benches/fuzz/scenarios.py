"""Hostile scenario files for the `contour` binary: the shipped scenarios (simulate for every
built-in model, plan, A02) with 1 to 3 values replaced by NaN, +-inf, 1e308, 0, negative
numbers, wrong types, empty or short arrays. A case fails when the binary panics, crashes or
exceeds 20 s (a long legitimate run also shows as a timeout: read the case). Not run in CI.

    cargo build -p contour-cli
    python3 benches/fuzz/scenarios.py SEED COUNT     # failing cases: target/fuzz/bad_SEED_*.toml
"""
import tomllib, random, subprocess, sys, os, math, copy, json, pathlib
random.seed(int(sys.argv[1]) if len(sys.argv)>1 else 0)
N=int(sys.argv[2]) if len(sys.argv)>2 else 200
ROOT=pathlib.Path(__file__).resolve().parents[2]
B=str(ROOT/'target/debug/contour')
WORK=ROOT/'target/fuzz'
WORK.mkdir(parents=True, exist_ok=True)
base={}
for f in ['simulate','plan','a02_n_four_bar']:
    base[f]=tomllib.load(open(ROOT/f'examples/scenarios/{f}.toml','rb'))
# extra models
sim=base['simulate']
for m,init in [('slider-crank',{'angle':0.3,'rate':0.0}),('four-bar',{'angle':0.3,'rate':0.0}),('keerthi',None),('huang',None),('arm7',None),('andrews',None)]:
    s=copy.deepcopy(sim); s['model']={m:{}}
    if init: s['initial']=init
    else: s.pop('initial')
    base['sim_'+m]=s
def fmt(v):
    if isinstance(v,bool): return 'true' if v else 'false'
    if isinstance(v,float):
        if math.isnan(v): return 'nan'
        if math.isinf(v): return 'inf' if v>0 else '-inf'
        return repr(v)
    if isinstance(v,int): return str(v)
    if isinstance(v,str): return json.dumps(v)
    if isinstance(v,list): return '['+', '.join(fmt(x) for x in v)+']'
    if isinstance(v,dict): return '{'+', '.join(f'{json.dumps(k)} = {fmt(x)}' for k,x in v.items())+'}'
def dump(d,prefix=''):
    out=[];tabs=[]
    for k,v in d.items():
        if isinstance(v,dict): tabs.append((k,v))
        else: out.append(f'{json.dumps(k)} = {fmt(v)}')
    s='\n'.join(out)+'\n'
    for k,v in tabs:
        p=f'{prefix}.{json.dumps(k)}' if prefix else json.dumps(k)
        s+=f'\n[{p}]\n'+dump(v,p)
    return s
def leaves(d,path=()):
    for k,v in d.items():
        if isinstance(v,dict): yield from leaves(v,path+(k,))
        else: yield path+(k,),v
BAD=[0,-1,-1.0,0.0,1e308,-1e308,1e-300,float('nan'),float('inf'),-float('inf'),2**62,[],[1.0],[float('nan')]*3,"x",True,1e6,1e-20]
EXTRA=[('time','end'),('time','start'),('time','output_step'),('time','max_steps'),('tolerance','atol'),('tolerance','rtol'),('tolerance','energy'),('integrator','h_max'),('integrator','h_init'),('dynamics','rank_rtol'),('dynamics','pivot_rtol'),('initial','rate'),('initial','angle'),('initial','tol')]
bad=0
for it in range(N):
    name=random.choice(list(base)); d=copy.deepcopy(base[name])
    for _ in range(random.choice([1,1,2,3])):
        ls=list(leaves(d))
        if random.random()<0.3:
            path=random.choice(EXTRA)
        else:
            path,_=random.choice(ls)
        cur=d
        for k in path[:-1]: cur=cur.setdefault(k,{}) if isinstance(cur,dict) else {}
        old=cur.get(path[-1])
        if isinstance(old,list) and old and random.random()<0.6:
            i=random.randrange(len(old)); old[i]=random.choice(BAD)
        else:
            cur[path[-1]]=random.choice(BAD)
    txt=dump(d)
    fn=str(WORK/'case.toml'); open(fn,'w').write(txt)
    cmd='plan' if 'plan' in d else 'simulate'
    try:
        r=subprocess.run(['timeout','20',B,cmd,fn,'-o',str(WORK/'out')],capture_output=True,text=True)
        rc=r.returncode; err=r.stderr
    except Exception as e:
        rc=-1; err=str(e)
    if rc in (101,124,134,139) or 'panicked' in err or rc<0:
        bad+=1
        open(WORK/f'bad_{sys.argv[1]}_{it}.toml','w').write(txt)
        print('BAD',it,name,rc,err.strip()[-400:].replace('\n',' | '))
print('done',N,'bad',bad)
