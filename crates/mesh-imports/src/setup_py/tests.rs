//! `setup.py` read as it is written, and what it is refused for.

use super::*;

fn reqs(cfg: &SetupCfg) -> Vec<(String, &'static str, u32)> {
    cfg.requirements.clone()
}

#[test]
fn names_bound_once_and_f_strings_are_read() {
    let text = "from setuptools import setup\n\nPLUGIN_NAME = \"athena\"\n\nmicrolib_name = f\"flytekitplugins-{PLUGIN_NAME}\"\n\nplugin_requires = [\"flytekit>=1.3.0b2,<2.0.0\", 'boto3']  # AWS\n\nsetup(\n    name=microlib_name,\n    namespace_packages=[\"flytekitplugins\"],\n    packages=[f\"flytekitplugins.{PLUGIN_NAME}\"],\n    install_requires=plugin_requires,\n    extras_require={\"dev\": [\"pytest\"], \"all\": plugin_requires + [\"x\"]},\n    license=\"apache2\",\n)\n";
    let cfg = read(text).expect("static");
    assert_eq!(
        reqs(&cfg),
        [
            ("flytekit>=1.3.0b2,<2.0.0".to_string(), "normal", 7),
            ("boto3".to_string(), "normal", 7),
            ("pytest".to_string(), "extra", 14),
            ("flytekit>=1.3.0b2,<2.0.0".to_string(), "extra", 7),
            ("boto3".to_string(), "extra", 7),
            ("x".to_string(), "extra", 14),
        ]
    );
    let want: toml::Table = toml::from_str(
        "[project]\nname = \"flytekitplugins-athena\"\ndependencies = [\"flytekit>=1.3.0b2,<2.0.0\", \"boto3\"]\n[tool.setuptools]\npackages = [\"flytekitplugins.athena\"]\n",
    )
    .expect("toml");
    assert_eq!(cfg.table, want);
}

#[test]
fn find_packages_package_dir_and_a_string_of_lines() {
    let text = "import setuptools\nsetuptools.setup(name='a-b', package_dir={'': 'src'},\n  packages=setuptools.find_packages(where='src', exclude=['tests*']),\n  install_requires='''\n    requests>=2  # http\n    # a comment\n    rich\n''', tests_require=('pytest',))\n";
    let cfg = read(text).expect("static");
    assert_eq!(
        reqs(&cfg),
        [
            ("requests>=2".to_string(), "normal", 5),
            ("rich".to_string(), "normal", 7),
            ("pytest".to_string(), "dev", 8),
        ]
    );
    let want: toml::Table = toml::from_str(
        "[project]\nname = \"a-b\"\ndependencies = [\"requests>=2\", \"rich\"]\n[tool.setuptools]\npackage-dir = { \"\" = \"src\" }\npackages = { find = { where = [\"src\"], exclude = [\"tests*\"] } }\n",
    )
    .expect("toml");
    assert_eq!(cfg.table, want);
}

#[test]
fn what_setuptools_would_have_to_run_is_not_read() {
    let computed = [
        // a call
        "from setuptools import setup\nsetup(name='a', install_requires=open('requirements.txt').read().splitlines())\n",
        // a comprehension
        "from setuptools import setup\nreqs = [l for l in open('r.txt')]\nsetup(install_requires=reqs)\n",
        // a name changed after it is bound, or bound in a block
        "from setuptools import setup\nreqs = ['a']\nif True:\n    reqs.append('b')\nsetup(install_requires=reqs)\n",
        "from setuptools import setup\nif PY2:\n    reqs = ['a']\nsetup(install_requires=reqs)\n",
        "from setuptools import setup\nreqs = ['a']\nreqs += ['b']\nsetup(install_requires=reqs)\n",
        // bound twice
        "from setuptools import setup\nreqs = ['a']\nreqs = ['b']\nsetup(install_requires=reqs)\n",
        // keywords from elsewhere
        "from setuptools import setup\nsetup(**kwargs)\n",
        "from setuptools import setup\nsetup(name='a', **extra, install_requires=['a'])\n",
        // an unknown name, a conditional, two calls, none
        "from setuptools import setup\nsetup(install_requires=REQS)\n",
        "from setuptools import setup\nsetup(install_requires=['a'] if x else ['b'])\n",
        "setup(install_requires=['a'])\nsetup(install_requires=['b'])\n",
        "print('no setup call')\n",
        "def setup(x):\n    pass\n",
    ];
    for text in computed {
        assert!(read(text).is_none(), "{text}");
    }
}

#[test]
fn a_name_used_otherwise_than_read_is_not_read() {
    let head =
        "from setuptools import setup\nimport sys\nreqs = ['a']\nextras = {'test': ['pytest']}\n";
    for change in [
        "if sys.platform == 'win32': reqs = ['b']\n",
        "x = 1; reqs = ['b']\n",
        "x = reqs = ['b']\n",
        "reqs, x = ['b'], 1\n",
        "reqs: list = ['b']\n",
        "reqs[0] = 'c'\n",
        "del reqs[0]\n",
        "reqs.remove('a')\n",
        "reqs += ['b']\n",
        "for reqs in [['b']]:\n    pass\n",
        "with open('x') as reqs:\n    pass\n",
        "from other import reqs\n",
        "y = (reqs := ['b'])\n",
        "if x: \\\n    reqs = ['b']\n",
        "for a, reqs in []:\n    pass\n",
        "def f(a, reqs):\n    pass\n",
    ] {
        let text = format!("{head}{change}setup(install_requires=reqs)\n");
        assert!(read(&text).is_none(), "{text}");
    }
    for change in [
        "extras['dev'] = extras['test'] + ['hypothesis']\n",
        "extras.setdefault('b', ['y'])\n",
    ] {
        let text = format!("{head}{change}setup(install_requires=reqs, extras_require=extras)\n");
        assert!(read(&text).is_none(), "{text}");
    }
    // Only read: the list stands.
    let text = format!(
        "{head}print(reqs, len(reqs) > 0, 'a' in reqs)\nsetup(install_requires=reqs + ['z'])\n"
    );
    let got: Vec<String> = read(&text)
        .expect("read")
        .requirements
        .into_iter()
        .map(|r| r.0)
        .collect();
    assert_eq!(got, ["a", "z"]);
}

#[test]
fn only_setuptools_setup_is_read_and_escapes_are_what_they_stand_for() {
    for text in [
        "def setup(**kw):\n    pass\nsetup(install_requires=['a'])\n",
        "from other import setup\nsetup(install_requires=['a'])\n",
        "from setuptools import setup\nsetup = wrapped(setup)\nsetup(install_requires=['a'])\n",
        "from setuptools import setup\nhelpers.setup(install_requires=['a'])\n",
    ] {
        assert!(read(text).is_none(), "{text}");
    }
    let cfg = read("import setuptools\nsetuptools.setup(install_requires='requests\\nrich', tests_require=[r'a\\b'])\n")
        .expect("read");
    let got: Vec<String> = cfg.requirements.into_iter().map(|r| r.0).collect();
    assert_eq!(got, ["requests", "rich", "a\\b"]);
}

#[test]
fn deep_long_and_doubling_input_is_bounded() {
    let deep = format!(
        "from setuptools import setup\nsetup(install_requires={}'a'{})\n",
        "[".repeat(10_000),
        "]".repeat(10_000)
    );
    assert!(read(&deep).is_none());
    let unclosed = format!("x = {}\n", "[".repeat(10_000));
    assert!(read(&unclosed).is_none());
    let long = format!(
        "from setuptools import setup\nsetup(install_requires=['a']{})\n",
        " + ['a']".repeat(15_000)
    );
    let _ = read(&long);
    let mut fan = String::from("from setuptools import setup\na0 = ['x']\n");
    for k in 1..=6 {
        let terms = vec![format!("a{}", k - 1); 20].join(" + ");
        fan.push_str(&format!("a{k} = {terms}\n"));
    }
    fan.push_str("setup(install_requires=a6)\n");
    assert!(read(&fan).is_none());
    let mut doubling = String::from("from setuptools import setup\na0 = 'x'\n");
    for k in 1..=30 {
        doubling.push_str(&format!("a{k} = f'{{a{0}}}{{a{0}}}'\n", k - 1));
    }
    doubling.push_str("setup(name=a30, install_requires=['b'])\n");
    assert!(
        read(&doubling).is_some_and(|c| c
            .table
            .get("project")
            .and_then(|p| p.get("name"))
            .is_none())
    );
    // A name that names itself, bound after an import of it.
    let own = "from setuptools import setup\nfrom meta import NAME\nNAME = f'acme-{NAME}'\nA = f'{B}'\nB = f'{A}'\nsetup(name=NAME, version=A, install_requires=['requests'])\n";
    assert!(read(own).is_some());
}

#[test]
fn odd_input_never_panics() {
    for text in [
        "",
        "setup(",
        "setup(install_requires=[",
        "x = '",
        "setup(name=f'{'",
        "'''",
        "setup(install_requires={'a': ",
        "setup(extras_require={'a' 'b'})",
        "a.b.(",
        "setup(\\\n)",
        "é = 'x'\nsetup(name=é)",
    ] {
        let _ = read(text);
    }
    assert!(
        read("from setuptools import setup\nsetup()").is_some_and(|c| c.requirements.is_empty())
    );
}

#[test]
fn a_computed_extra_leaves_the_rest_read() {
    // metaflow's: `dev` read from a file, `stubs` formatted with a version read from one.
    let text = "from setuptools import setup\n\n\ndef read_dev_requirements():\n    with open(\"devtools/requirements-devstack.txt\") as f:\n        return [l.strip() for l in f]\n\n\nsetup(\n    name=\"metaflow\",\n    install_requires=[\"requests\", \"boto3\"],\n    extras_require={\n        \"stubs\": [\"metaflow-stubs==%s\" % version],\n        \"dev\": read_dev_requirements(),\n        \"s3\": [\"s3fs\"],\n    },\n)\n";
    let cfg = read(text).expect("read but its computed extras");
    assert!(cfg.computed_extras);
    assert_eq!(
        reqs(&cfg),
        [
            ("requests".to_string(), "normal", 11),
            ("boto3".to_string(), "normal", 11),
            ("metaflow-stubs".to_string(), "extra", 13),
            ("s3fs".to_string(), "extra", 15),
        ]
    );
    // The dict through names bound to it.
    let named = "from setuptools import setup\nBASE = {\"b\": [\"b\"], \"dev\": reqs()}\nEXTRAS = BASE\nsetup(name=\"x\", install_requires=[\"a\"], extras_require=EXTRAS)\n";
    let cfg = read(named).expect("read through names");
    assert!(cfg.computed_extras);
    assert_eq!(
        reqs(&cfg),
        [
            ("a".to_string(), "normal", 4),
            ("b".to_string(), "extra", 2)
        ]
    );
    // An extra neither literal nor a call leaves the file unread.
    let other = "from setuptools import setup\nsetup(name=\"x\", install_requires=[\"a\"], extras_require={\"b\": [x for x in y]})\n";
    assert!(read(other).is_none());
    // Every extra literal: nothing computed.
    let literal = "from setuptools import setup\nsetup(name=\"x\", install_requires=[\"a\"], extras_require={\"b\": [\"b\"]})\n";
    assert!(!read(literal).expect("literal").computed_extras);
}
