use core::Node;

fn main() {
    let n = Node { name: "g14".into() };
    let s = "core::fake is inside a string";
    println!("{} {}", n.name, serde_json::to_string(&s).unwrap_or_default());
}
